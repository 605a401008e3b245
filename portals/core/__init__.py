"""The app contract, episodes, the money-movement guard and the web shell shared by every app."""
