"""Full-width pages of the main window: Conflicts and Simulator (the listing & expansion page is widgets/preview_panel)."""
