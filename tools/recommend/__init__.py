"""``recommend_gpus``: ranked GPU configurations, as they are sold, for a model, a task and an objective."""

from tools.recommend.configs import MAX_COUNT_BY_SEGMENT
from tools.recommend.core import recommend_gpus
from tools.recommend.notes import CHINA_BUYABLE
from tools.recommend.schema import Objective, Option, Recommendation, RecommendRequest, Task

__all__ = ["CHINA_BUYABLE", "MAX_COUNT_BY_SEGMENT", "Objective", "Option", "RecommendRequest", "Recommendation", "Task", "recommend_gpus"]
