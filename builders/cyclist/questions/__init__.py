"""CycliST question generation: CLEVR-style templates with temporal quantifiers over per-frame scene
state (paper Sec. 3, Tables 13 and 14), and the scene-understanding ground truth per scene."""

from .functions import FUNCTIONS, Invalid, execute
from .generate import generate_questions
from .ground_truth import scene_ground_truth
from .state import SceneSchemaError, SceneState
from .templates import FAMILIES, TemplateError, load_templates

__all__ = [
    "FAMILIES",
    "FUNCTIONS",
    "Invalid",
    "SceneSchemaError",
    "SceneState",
    "TemplateError",
    "execute",
    "generate_questions",
    "load_templates",
    "scene_ground_truth",
]
