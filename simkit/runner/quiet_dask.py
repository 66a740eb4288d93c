"""Scheduler and worker classes of the private Dask cluster that start no HTTP server.

distributed starts one on every scheduler (port 8787 even with ``dashboard_address=None``:
``Scheduler.__init__`` calls ``start_http_server`` whatever the dashboard setting) and on
every worker (a random port). Here the routes are kept (code reads ``http_application``)
and nothing listens. Module-level so worker processes unpickle them by reference; imported
only with ``--backend dask``.
"""

from __future__ import annotations

from distributed import Scheduler, Worker
from distributed.http.routing import RoutingApplication


def _no_http(self, routes, dashboard_address, default_port=0, ssl_options=None):
    self.http_application = RoutingApplication(routes)


class QuietScheduler(Scheduler):
    start_http_server = _no_http


class QuietWorker(Worker):
    start_http_server = _no_http
