"""Scripts the TARGET environment's interpreter runs as files (stdlib + torch only).

They never import ``wizard``; the wizard finds them with :func:`probe_path`.
"""
