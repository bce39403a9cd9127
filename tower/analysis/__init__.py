"""Retention and dislodge statistics of tower sequences (traces or models), and their plots."""
