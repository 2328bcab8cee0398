"""A repository full of fake secrets of many kinds, written by the tests that use it.

Every value has the real format of its kind (prefix, length, alphabet) but is made up, and is
assembled from pieces at run time so this file itself holds no complete secret. ``SECRETS``
maps a kind to the exact secret text; ``write_secret_repo`` writes the files that hide them,
next to ordinary code and docs that must stay searchable.
"""

from __future__ import annotations

import base64
import json
import random
from pathlib import Path

__all__ = ["PLAIN_WORDS", "SECRETS", "write_secret_repo"]

_rng = random.Random(14)
_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def _pick(n: int, alphabet: str = _ALNUM) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


def _b64(n: int) -> str:
    return base64.b64encode(bytes(_rng.randrange(256) for _ in range(n))).decode()


def _pem(kind: str, lines: int = 12) -> str:
    body = "\n".join(_b64(48) for _ in range(lines))
    label = f"{kind} PRIVATE KEY".strip()
    return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----"


def _jwt() -> str:
    head = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').rstrip(b"=").decode()
    claims = {"sub": "1234567890", "name": "Deploy Bot", "iat": 1716239022}
    body = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    return f"{head}.{body}.{_pick(43, _ALNUM + '-_')}"


HEX = "0123456789abcdef"
SECRETS: dict[str, str] = {
    "rsa_private_key": _pem("RSA"),
    "openssh_private_key": _pem("OPENSSH", 8),
    "ec_private_key_in_markdown": _pem("EC", 4),
    "service_account_private_key": _pem("", 16),
    "aws_access_key_id": "AK" + "IA" + _pick(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"),
    "aws_secret_access_key": _pick(40, _ALNUM + "/+"),
    "github_pat_classic": "gh" + "p_" + _pick(36),
    "github_pat_fine_grained": "github" + "_pat_" + _pick(22) + "_" + _pick(59),
    "github_oauth": "gh" + "o_" + _pick(36),
    "stripe_live_secret": "sk" + "_live_" + _pick(24),
    "stripe_restricted": "rk" + "_live_" + _pick(24),
    "slack_bot_token": "xo"
    + "xb-"
    + _pick(11, "0123456789")
    + "-"
    + _pick(13, "0123456789")
    + "-"
    + _pick(24),
    "slack_webhook": "https://hooks.slack"
    + ".com/services/T"
    + _pick(8, "ABCDEFGHIJ0123456789")
    + "/B"
    + _pick(10, "ABCDEFGHIJ0123456789")
    + "/"
    + _pick(24),
    "gcp_api_key": "AI" + "za" + _pick(35, _ALNUM + "-_"),
    "jwt": _jwt(),
    "password_in_url": "S3cure" + _pick(10),
    "password_assignment": "Pa55-" + _pick(14),
    "openai_key": "sk" + "-proj-" + _pick(20) + "T3Blbk" + "FJ" + _pick(20),
    "sendgrid_key": "SG" + "." + _pick(22, _ALNUM + "-_") + "." + _pick(43, _ALNUM + "-_"),
    "twilio_api_key": "SK" + _pick(32, HEX),
    "npm_token": "np" + "m_" + _pick(36),
    "pypi_token": "pypi-" + "AgEIcHlwaS5vcmc" + _pick(70, _ALNUM + "-_"),
    "gitlab_pat": "gl" + "pat-" + _pick(20, _ALNUM + "-_"),
    "mailchimp_key": _pick(32, HEX) + "-us" + "12",
    "telegram_bot_token": _pick(10, "123456789") + ":AA" + _pick(33, _ALNUM + "-_"),
    "azure_storage_key": _b64(64),
    "dotenv_secret_key": _pick(50, _ALNUM + "!@#%^&*(-_=+)"),
}

PLAIN_WORDS = {
    "settings_prod.py": "configure_payments",
    "docs/setup.md": "Installing the shop",
    "src/shop/cart.py": "add_item",
}
"""A word in each file that must stay searchable after the redaction."""


def write_secret_repo(root: Path) -> Path:
    """Write the secrets repository under ``root``; returns ``root``."""
    s = SECRETS
    sa = {
        "type": "service_account",
        "project_id": "shop-prod",
        "private_key_id": _pick(40, HEX),
        "private_key": s["service_account_private_key"] + "\n",
        "client_email": "deploy@shop-prod.iam.gserviceaccount.com",
        "client_id": _pick(21, "0123456789"),
        "token_uri": "https://oauth2.googleapis.com/token",
    }
    files = {
        "deploy_key": s["rsa_private_key"] + "\n",
        "keys/backup.txt": "old key, do not use:\n" + s["openssh_private_key"] + "\n",
        "config/shop-prod-sa.json": json.dumps(sa, indent=2) + "\n",
        "settings_prod.py": (
            '"""Production settings."""\n\n'
            f'AWS_ACCESS_KEY_ID = "{s["aws_access_key_id"]}"\n'
            f'AWS_SECRET_ACCESS_KEY = "{s["aws_secret_access_key"]}"\n'
            f'GITHUB_TOKEN = "{s["github_pat_classic"]}"\n'
            f'GITHUB_FINE_GRAINED = "{s["github_pat_fine_grained"]}"\n'
            f'GITHUB_OAUTH = "{s["github_oauth"]}"\n'
            f'STRIPE_SECRET = "{s["stripe_live_secret"]}"\n'
            f'STRIPE_RESTRICTED = "{s["stripe_restricted"]}"\n'
            f'SLACK_BOT_TOKEN = "{s["slack_bot_token"]}"\n'
            f'SLACK_WEBHOOK = "{s["slack_webhook"]}"\n'
            f'GOOGLE_MAPS_KEY = "{s["gcp_api_key"]}"\n'
            f'DATABASE_URL = "postgres://shop:{s["password_in_url"]}@db.internal:5432/shop"\n'
            f'DB_PASSWORD = "{s["password_assignment"]}"\n'
            f'OPENAI_API_KEY = "{s["openai_key"]}"\n'
            f'SENDGRID_API_KEY = "{s["sendgrid_key"]}"\n'
            f'TWILIO_API_KEY = "{s["twilio_api_key"]}"\n'
            f'MAILCHIMP_API_KEY = "{s["mailchimp_key"]}"\n'
            f'TELEGRAM_BOT_TOKEN = "{s["telegram_bot_token"]}"\n'
            "AZURE_STORAGE = (\n"
            '    "DefaultEndpointsProtocol=https;AccountName=shopprod;"\n'
            f'    "AccountKey={s["azure_storage_key"]};EndpointSuffix=core.windows.net"\n'
            ")\n\n\n"
            "def configure_payments(app):\n"
            '    """Wire the payment provider into the app."""\n'
            "    app.config['STRIPE'] = STRIPE_SECRET\n"
            "    return app\n"
        ),
        "docs/setup.md": (
            "# Installing the shop\n\n"
            "Installing the shop takes three steps. Paste the staging key below into "
            "`~/.ssh/shop` first:\n\n"
            f"```\n{s['ec_private_key_in_markdown']}\n```\n\n"
            f"Then call the API with `Authorization: Bearer {s['jwt']}`.\n\n"
            "## Publishing\n\n"
            f"The release job uses `{s['npm_token']}` for npm and `{s['pypi_token']}` for PyPI; "
            f"the mirror uses `{s['gitlab_pat']}`.\n"
        ),
        ".env.production": f"SECRET_KEY='{s['dotenv_secret_key']}'\nDEBUG=false\n",
        "src/shop/__init__.py": '"""The shop."""\n',
        "src/shop/cart.py": (
            '"""A shopping cart."""\n\n\n'
            "def add_item(cart, item):\n"
            '    """Add an item to the cart."""\n'
            "    cart.append(item)\n"
            "    return cart\n"
        ),
        "README.md": "# Shop\n\nA small shop. See docs/setup.md to install it.\n",
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root
