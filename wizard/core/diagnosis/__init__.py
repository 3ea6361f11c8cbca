""""What broke": a rule per known failure mode over detection and the environment's torch facts,
and recognition of failure texts a student pastes.
"""
