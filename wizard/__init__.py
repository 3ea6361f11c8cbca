"""GPU Setup Wizard (GPU 환경 설정 마법사).

From a bare PC to a verified PyTorch GPU environment. ``wizard.core`` holds the engine
(pure Python, never Qt), ``wizard.probe`` the scripts a target environment runs,
``wizard.ui`` the Qt wizard and ``wizard.cli`` the same engine headless.
"""

__version__ = "0.1.0"
