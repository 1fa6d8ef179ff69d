"""English date formats that name the time zone: the admin prints every time it lists or shows read-only this way
("2026-11-28 09:14:03 UTC"), so a time read there is never taken for the reader's own clock. `T` is the zone's
abbreviation in settings.TIME_ZONE (UTC, CET, ...)."""

DATETIME_FORMAT = "Y-m-d H:i:s T"
SHORT_DATETIME_FORMAT = "Y-m-d H:i T"
