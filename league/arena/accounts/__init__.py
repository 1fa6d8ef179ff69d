"""Accounts: signing up, passwords (change and reset), and the users' admin with the staff's disable action."""
