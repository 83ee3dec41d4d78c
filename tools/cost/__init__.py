"""Money and time: rent-vs-buy TCO, training time, default MFU, currencies."""
