"""Per-site selector files (TOML), read by spiders.site_config."""
