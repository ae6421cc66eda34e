"""Per-site configuration files (TOML), read by arastance.base.sites."""
