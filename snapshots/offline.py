"""The one way to point the pipeline at the offline world: :func:`offline_world`.

Production code never knows the world exists. The demo, the command line's ``--offline``
options, the benchmarks and the tests all wrap an ordinary production call in
:func:`offline_world`, which serves the snapshots on 127.0.0.1 and sets the ``ARASTANCE_*``
environment overrides that point the settings at them for the duration of the block.

Why environment variables rather than a modified settings object: every flow and task reloads
its settings (a Prefect task may run in another thread or be retried), and spider subprocesses
inherit the environment, so one override reaches all of them without any parameter threading.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from arastance.base.environment import environment_overridden
from arastance.config.crawl import LOOPBACK_CRAWL
from snapshots.build import SITES
from snapshots.server import SnapshotServer, serve_snapshots


class NoSnapshotsError(ValueError):
    """A site was asked for offline that the snapshots do not hold."""


def check_snapshotted(sites: Iterable[str]) -> None:
    """Refuse sites the snapshots do not hold: the offline world points only the snapshot sites at the
    local server but turns the politeness delays off for every site, so any other one would be crawled
    live, from the real site, with no delay between requests."""
    missing = [site for site in sites if site not in SITES]
    if missing:
        raise NoSnapshotsError(f"no offline snapshots of {', '.join(missing)}; the snapshots hold "
                               f"{', '.join(SITES)} (leave out --offline to read {'it' if len(missing) == 1 else 'them'} "
                               "from the real site)")


def offline_overrides(server: SnapshotServer) -> dict[str, str]:
    """Settings (as environment variables) that point every site, the web archive and the article
    fetcher at ``server``, without the politeness delays that only real sites need."""
    env = {f"ARASTANCE_SITES__{site.upper()}": server.site_url(site) for site in SITES}
    env["ARASTANCE_SEARCH__MIRROR_BASE"] = server.base_url
    env["ARASTANCE_CRAWL__ARCHIVE_URL"] = server.archive_url  # Dabegad (live = false) is read from the archive
    env["ARASTANCE_CRAWL__ARCHIVE_AVAILABILITY_URL"] = server.availability_url
    env["ARASTANCE_SEARCH__BACKEND"] = "local"  # never spend a configured web API's quota on the demo
    env.update({f"ARASTANCE_CRAWL__{k.upper()}": str(v).lower() for k, v in LOOPBACK_CRAWL.items()})
    return env


@contextmanager
def offline_world() -> Iterator[SnapshotServer]:
    """Serve the snapshots for the duration of the block, with the settings pointing at them.

    The environment is restored afterwards, values that were set before included; a second
    block gets a new server on a new port (the same sites at another address).
    """
    with serve_snapshots() as server, environment_overridden(offline_overrides(server)):
        yield server
