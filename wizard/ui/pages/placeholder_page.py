"""A page whose step is not built yet: it says so honestly and lets the student go on."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from wizard.core.base.i18n import t
from wizard.ui.pages.base import BasePage, PageId
from wizard.ui.session_model import SessionModel


class PlaceholderPage(BasePage):
    def __init__(self, page_id: PageId, model: SessionModel, parent: QWidget | None = None) -> None:
        self.page_id = page_id
        super().__init__(model, parent)
        self.setObjectName(f"page_{page_id.name.lower()}")
        layout = QVBoxLayout(self)
        self.notice = QLabel()
        self.notice.setWordWrap(True)
        self.notice.setObjectName("notAvailable")
        self.notice.setFrameShape(QLabel.Shape.StyledPanel)
        self.notice.setMargin(12)
        layout.addWidget(self.notice)
        layout.addStretch(1)
        self.retranslate()

    def retranslate(self) -> None:
        super().retranslate()
        self.notice.setText(t("common.not_available_yet", self.lang))
