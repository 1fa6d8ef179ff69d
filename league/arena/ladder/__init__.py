"""The competitive ladder: who plays whom next (scheduling), the Bradley-Terry fit of every rated game (refits,
with the pure maths in bradley_terry), rating history and the leaderboards.

Nothing here imports Django at package level, so `bradley_terry` loads without Django or Celery."""
