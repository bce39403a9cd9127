"""Interfaces of the Marrakesh engine to other frameworks: OpenSpiel and PettingZoo.

The framework packages are imported only by their own adapter module
(:mod:`tower.marrakesh.adapters.openspiel`, :mod:`tower.marrakesh.adapters.pettingzoo`);
:mod:`tower.marrakesh.adapters.views` holds what a player may see, shared by both and by
the terminal UI.
"""
