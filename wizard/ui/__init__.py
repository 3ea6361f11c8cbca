"""The Qt layer: the QWizard, one module per page, widgets and workers."""
