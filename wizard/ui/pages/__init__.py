"""One QWizardPage per module, in the order of the flow."""
