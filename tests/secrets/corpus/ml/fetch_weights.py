"""Downloads model weights from the private release."""
import requests

GITHUB_TOKEN = (
    "ghp_UH40q9IjkdYNCW"
    "hnOjupxTibfeiS4mKk9j9U"
)
RELEASE = (
    "https://api.github.com/repos/"
    "acme/models/releases/latest"
)
SHA = (
    "210a8581e90bcfc5b918207be0e08c04"
    "001dc164a767b040bdadd83ddff27a95"
)
