"""Command-line interface: one module per command, registered in :mod:`certify.cli.main`."""
