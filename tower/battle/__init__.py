"""The Walls & Guards battle checker: the Battle at the Wall under a tower model.

:mod:`tower.battle.checker` analyses a situation (each player's law of attackers repelled
and breaches, expected points and losses, the effect of hiring 0 to 3 watchmen) and checks
an observed battle against the model. The rules themselves live in
:mod:`tower.marrakesh.wall_battle`.
"""
