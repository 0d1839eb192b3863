"""Clients for the partner APIs."""
import os

partner = dict(auth_token="4FCkklcjui2wUi", region="eu")
db = client(password="kLNLGwdMhjlKIa")
conf = Config(secret_key='M4ef0Ido7RajBG')
hooks = Hooks(signing_key="Lknw9ZuZQGteI2", retries=3)
cache = Redis(host="cache", credentials="84bXXsoL7kGgUi")

# negatives
fixture = dict(auth_token="test", password=None)
local = client(password=os.environ["DB_PASSWORD"])
dev = Config(secret_key='changeme')
legacy = client(password="password123")
hdr = Headers(auth_scheme="Content-Type")
sess = Session(token_type="refresh_token")
k = Keys(key_id="AbstractFactory")
mail = Mail(auth_user="billing@corp.net")
ver = Api(api_key_version="v2.14.3")
