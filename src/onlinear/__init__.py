"""onlinear: fast, faithful online learning of linear multiclass classifiers."""
from .estimators import (
    CELLIP,
    IELLIP,
    MIRA,
    NAROMMA,
    ROMMA,
    AggressiveROMMA,
    BalancedWinnow,
    BlockLearner,
    BinaryMIRA,
    ConservativeMCP,
    KernelKeslerPerceptron,
    KernelMIRA,
    KernelMulticlassROMMA,
    KernelPassiveAggressive,
    KernelPerceptron,
    KernelSupportClassPA,
    KernelUltraconservativePerceptron,
    KeslerPerceptron,
    MaximumCosinePerceptron,
    MulticlassROMMA,
    Multiplicative,
    OneVsRestPerceptron,
    OnlineLinearClassifier,
    PassiveAggressive,
    Perceptron,
    SimultaneousProjectionClassifier,
    SimultaneousProjectionOrdinal,
    SupportClassPA,
    UltraconservativePerceptron,
)
from .persistence import load, read_header, save
from .streaming import learn_stream
from .registry import available, describe, make

__version__ = "0.1.0"  # the one place of the version (pyproject.toml reads it)

__all__ = [
    "available", "describe", "make", "save", "load", "read_header", "learn_stream", "OnlineLinearClassifier", "Perceptron",
    "OneVsRestPerceptron", "UltraconservativePerceptron", "KeslerPerceptron", "MIRA",
    "BinaryMIRA", "PassiveAggressive", "SupportClassPA", "ROMMA", "AggressiveROMMA", "NAROMMA",
    "MaximumCosinePerceptron", "ConservativeMCP", "MulticlassROMMA", "Multiplicative",
    "BalancedWinnow", "CELLIP", "IELLIP",
    "KernelPerceptron", "KernelUltraconservativePerceptron", "KernelKeslerPerceptron",
    "KernelMIRA", "KernelPassiveAggressive", "KernelSupportClassPA", "KernelMulticlassROMMA",
    "SimultaneousProjectionClassifier", "SimultaneousProjectionOrdinal", "BlockLearner",
]
