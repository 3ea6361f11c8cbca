"""Disk space the student can see and get back: what the wizard's environments, its download
cache and the pip, uv and Hugging Face caches take (:mod:`.locations`, :mod:`.measure`), and a
cleanup that never touches an environment the student did not confirm (:mod:`.cleanup`)."""
