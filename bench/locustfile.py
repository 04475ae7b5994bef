"""Locust side of the quern benchmark: one FastHttpUser task, GET /small.

BENCH_THINK (seconds, default 0) is the wait after each request: 0 for the
speed row, 1 for the memory row.
"""
import os

from locust import FastHttpUser, constant, task

_THINK = float(os.environ.get("BENCH_THINK", "0"))


class Small(FastHttpUser):
    wait_time = constant(_THINK)

    @task
    def small(self):
        self.client.get("/small")
