"""The embedded default's broker, kombu's filesystem transport, with each message whole before a worker can see it.

kombu's transport creates a message's file in the queue folder and only then writes it. A worker that lists the
folder in between moves the still empty file away, fails to decode it and stops ("Unrecoverable error:
JSONDecodeError"; seen when a worker's own beat sent the upkeep as the worker polled its queues). Here a message is
written to a hidden file of the same folder, which no queue's name matches, and renamed into place: a rename within a
folder is atomic, so a reader finds a whole message or none.

`league.celery` makes this the transport of every `filesystem://` broker URL.
"""

from __future__ import annotations

import os
import uuid
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps

ALIAS = "filesystem"


class Channel(filesystem.Channel):
    def _put(self, queue: str, payload: Any, **kwargs: Any) -> None:
        """Put the message onto `queue`: written whole under a hidden name, then renamed to the name kombu reads."""
        name = f"{int(round(monotonic() * 1000))}_{uuid.uuid4()}.{queue}.msg"  # as kombu names it: its order
        final = os.path.join(self.data_folder_out, name)
        hidden = os.path.join(self.data_folder_out, f".{name}.part")  # partition('.') matches no queue
        try:
            with open(hidden, "wb") as message:
                message.write(str_to_bytes(dumps(payload)))
            os.replace(hidden, final)
        except OSError as error:
            try:
                os.remove(hidden)
            except OSError:
                pass
            raise ChannelError(f"Cannot add file {final!r} to directory") from error


class Transport(filesystem.Transport):
    Channel = Channel
