"""The base layer: small, dependency-light helpers every other layer may import.

Text normalisation (:mod:`~arastance.base.arabic`), date parsing (:mod:`~arastance.base.dates`),
URL canonicalisation (:mod:`~arastance.base.urls`), stable ids and content hashes
(:mod:`~arastance.base.ids`), UTF-8 input files with errors naming file and line
(:mod:`~arastance.base.text_files`), the registry of secrets no message may show
(:mod:`~arastance.base.secrets`), JSON Lines reading (:mod:`~arastance.base.jsonl`), web-archive
capture addresses (:mod:`~arastance.base.captures`), the site registry read by spiders and tasks
alike (:mod:`~arastance.base.sites`, one TOML file a site in ``site_configs/``) and the staging
contract between the spiders and the loaders (:mod:`~arastance.base.staging`). Nothing here
imports ``spiders``, ``tasks``, ``warehouse`` or ``flows``: the arrows point only downwards to it.
"""
