"""The engine: detection, compatibility, plans, reports. Never imports Qt."""
