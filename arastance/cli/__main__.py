"""``python -m arastance.cli``: the same as the ``arastance`` command."""

from arastance.cli import main

main()
