"""scikit-learn estimators of the linear online learners."""
from .base import OnlineLinearClassifier
from .ellipsoid import CELLIP, IELLIP
from .kernel import (
    KernelKeslerPerceptron,
    KernelMIRA,
    KernelMulticlassROMMA,
    KernelPassiveAggressive,
    KernelPerceptron,
    KernelSupportClassPA,
    KernelUltraconservativePerceptron,
)
from .maximum_cosine import (
    NAROMMA,
    ROMMA,
    AggressiveROMMA,
    ConservativeMCP,
    MaximumCosinePerceptron,
)
from .passive_aggressive import PassiveAggressive, SupportClassPA
from .simultaneous import (
    BlockLearner,
    SimultaneousProjectionClassifier,
    SimultaneousProjectionOrdinal,
)
from .ultraconservative import (
    MIRA,
    BalancedWinnow,
    BinaryMIRA,
    KeslerPerceptron,
    MulticlassROMMA,
    Multiplicative,
    OneVsRestPerceptron,
    Perceptron,
    UltraconservativePerceptron,
)

__all__ = [
    "OnlineLinearClassifier", "Perceptron", "OneVsRestPerceptron", "UltraconservativePerceptron",
    "KeslerPerceptron", "MIRA", "BinaryMIRA", "PassiveAggressive", "SupportClassPA", "ROMMA",
    "AggressiveROMMA", "NAROMMA", "MaximumCosinePerceptron", "ConservativeMCP",
    "MulticlassROMMA", "Multiplicative", "BalancedWinnow", "CELLIP", "IELLIP",
    "KernelPerceptron", "KernelUltraconservativePerceptron", "KernelKeslerPerceptron",
    "KernelMIRA", "KernelPassiveAggressive", "KernelSupportClassPA", "KernelMulticlassROMMA",
    "SimultaneousProjectionClassifier", "SimultaneousProjectionOrdinal", "BlockLearner",
]
