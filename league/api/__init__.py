"""The league's REST API under /api/: Django REST framework views over the arena's models and domain functions.

Reading is public (validation matches and private version fields excepted); writing needs a session or a token
(`rest_framework.authtoken`, managed on /account/tokens/). The OpenAPI schema is at /api/schema/, docs at /api/docs/.
"""
