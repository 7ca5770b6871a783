"""Modals and small widgets every feature shares: the modal frame, confirm, help, approval, copying and the
clipboard, safe text, form fields and the app-wide messages."""
