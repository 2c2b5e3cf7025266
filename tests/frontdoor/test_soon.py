"""An edit's followers (frontdoor/soon.py) run once per burst, FOLLOW_S after it: never at the loop's next turn,
where their widget messages crossed the canvas's reply to the edit (issue 42)."""

from __future__ import annotations

import asyncio

from dld_jupyter.frontdoor.soon import FOLLOW_S, Soon


def test_followers_run_once_a_frame_after_the_burst() -> None:
    ran: list[float] = []

    async def burst() -> tuple[int, int]:
        loop = asyncio.get_running_loop()
        soon = Soon(lambda: ran.append(loop.time()))
        start = loop.time()
        for _ in range(5):  # five edits of one burst
            soon()
            await asyncio.sleep(0)
        at_next_turns = len(ran)
        await asyncio.sleep(FOLLOW_S * 4)
        soon()  # a later edit: its own run
        await asyncio.sleep(FOLLOW_S * 4)
        assert ran[0] - start >= FOLLOW_S * 0.9
        return at_next_turns, len(ran)

    assert asyncio.run(burst()) == (0, 2)


def test_without_a_loop_the_follower_runs_at_once() -> None:
    ran: list[int] = []
    Soon(lambda: ran.append(1))()
    assert ran == [1]
