"""Read an email as a person does: wait for it by its exact recipient, follow its link."""
import json
import re
import urllib.parse
import urllib.request


def wait_for_message(sendbox_url, recipient, timeout=10000):
    """The newest message to `recipient` (exactly), or the first to arrive within `timeout` ms."""
    query = urllib.parse.urlencode({"recipient": recipient, "timeout": timeout})
    url = f"{sendbox_url}/_sandbox/api/messages/wait?{query}"
    # Nothing in time: 404 wait_timeout, raised as urllib.error.HTTPError.
    with urllib.request.urlopen(url, timeout=timeout / 1000 + 5) as response:
        return json.load(response)


def follow_link(message, text):
    """Opens the first link whose text matches `text` (a regex, any case); returns the page."""
    links = message["links"]  # [{"href", "text"}], in the order a reader sees them
    href = next((l["href"] for l in links if re.search(text, l["text"] or "", re.I)), None)
    if href is None:
        raise LookupError(f"no link matches {text!r}: {[l['text'] for l in links]}")
    with urllib.request.urlopen(href) as response:
        return response.read().decode()


# In a test, once the app has sent the password-reset email:
#
#     message = wait_for_message(sendbox_url, "ada@example.com")
#     page = follow_link(message, "new password")
#     assert "Choose a new password" in page
