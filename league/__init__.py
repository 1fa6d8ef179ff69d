"""The league server: a Django project with its Celery app in `league.celery` (``celery -A league worker``).

Nothing is imported here, so `league.arena.ladder.bradley_terry` (pure maths) loads without Django or Celery; Celery's
`-A league` finds `league.celery.app` by itself, and the league's code reaches the app through `league.arena.queue`.
"""
