"""scikit-learn estimators of the linear online learners."""
from .base import OnlineLinearClassifier
from .passive_aggressive import PassiveAggressive, SupportClassPA
from .ultraconservative import (
    MIRA,
    BinaryMIRA,
    KeslerPerceptron,
    OneVsRestPerceptron,
    Perceptron,
    UltraconservativePerceptron,
)

__all__ = [
    "OnlineLinearClassifier", "Perceptron", "OneVsRestPerceptron", "UltraconservativePerceptron",
    "KeslerPerceptron", "MIRA", "BinaryMIRA", "PassiveAggressive", "SupportClassPA",
]
