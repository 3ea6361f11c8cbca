""""What changed since last time": snapshots of completed runs and the plain-words diff between two.
"""
