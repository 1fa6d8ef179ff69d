"""Date formats for the site and the admin (settings.FORMAT_MODULE_PATH): Django looks here before its own locales."""
