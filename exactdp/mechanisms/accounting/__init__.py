"""Accounting: privacy-loss profiles, subsampling, composition, RDP and zCDP, the certified
accountant and its privacy curves, and the exact budget ledger."""
