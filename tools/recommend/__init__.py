"""``recommend_gpus``: ranked GPU configurations, as they are sold, for a model, a task and an objective."""

from tools.recommend.configs import MAX_COUNT_BY_SEGMENT
from tools.recommend.core import recommend_gpus
from tools.recommend.notes import CHINA_BUYABLE
from tools.recommend.schema import BudgetFallback, Objective, Option, Recommendation, RecommendRequest, Task, Workload, WorkloadDemand

__all__ = ["CHINA_BUYABLE", "MAX_COUNT_BY_SEGMENT", "BudgetFallback", "Objective", "Option", "RecommendRequest", "Recommendation", "Task", "Workload", "WorkloadDemand", "recommend_gpus"]
