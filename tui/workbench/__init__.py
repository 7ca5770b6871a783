"""The main screen's working state without the screen: see `workbench.Workbench`."""

from .runs import Runs, RunState
from .status import StatusInfo
from .workbench import DeletePlan, Refused, RunHost, Workbench, run_group, title_for

__all__ = ["DeletePlan", "Refused", "RunHost", "RunState", "Runs", "StatusInfo", "Workbench", "run_group", "title_for"]
