"""Jupyter Server handler of the operator documentation browser (Help ▸ ONNX Operator Documentation, issue 41):
`GET /dld/operators` lists every operator, `GET /dld/operators?name=Conv&domain=ai.onnx` gives one operator's
reference (document/operators/operator_docs.py), as JSON.

Why the server and not a kernel: the browser opens from the Help menu with no designer and no kernel running, and the
schemas are those of the onnx (and onnxruntime) installed beside this extension. The handler is an authenticated
API handler like the server's own (read access to the "api" resource); what it returns is schema data, which the
panel shows as text (js/src/lab/operator_docs.ts). The schema registry is built once per server, on a thread: the
first request takes ~1.5 s (onnxruntime's contrib schemas), later ones are served from the cache.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from jupyter_core.utils import ensure_async
from jupyter_server.base.handlers import APIHandler
from tornado import web

from dld_jupyter.document.operators.operator_docs import UnknownOperator, operator_index, operator_reference

PATH = "/dld/operators"


class OperatorDocsHandler(APIHandler):
    auth_resource = "api"

    @web.authenticated
    async def get(self) -> None:
        if not await ensure_async(self.authorizer.is_authorized(self, self.current_user, "read", "api")):
            raise web.HTTPError(403)
        name = self.get_query_argument("name", "")
        domain = self.get_query_argument("domain", "")
        try:
            if name:
                found: Any = await asyncio.to_thread(operator_reference, name, domain)
            else:
                found = await asyncio.to_thread(operator_index)
        except UnknownOperator as error:
            raise web.HTTPError(404, str(error)) from None
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(found))


def add_handlers(serverapp: Any) -> None:
    base = serverapp.web_app.settings.get("base_url", "/")
    serverapp.web_app.add_handlers(".*$", [(f"{base.rstrip('/')}{PATH}", OperatorDocsHandler)])
