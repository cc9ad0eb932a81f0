# cython: language_level=3
from .confidence cimport gaussian_step_function

cdef gaussian_step_function gaussian_step_of(int rule) noexcept nogil
