"""The main screen's working state without the screen: see `workbench.Workbench`."""

from visindigo.tui.workbench.branches import DeletePlan
from visindigo.tui.workbench.refusal import Refused
from visindigo.tui.workbench.runs import Runs, RunState
from visindigo.tui.workbench.status import StatusInfo
from visindigo.tui.workbench.workbench import RunHost, Workbench, run_group, title_for

__all__ = ["DeletePlan", "Refused", "RunHost", "RunState", "Runs", "StatusInfo", "Workbench", "run_group", "title_for"]
