""""What broke": a rule per known failure mode over detection and the environment's torch facts,
and recognition of failure texts a student pastes.

``model`` (Diagnosis, Action, the rules' input) ← ``explain`` (pasted texts) ← ``rules``;
``facts`` gathers what the rules read from the target environment.
"""
