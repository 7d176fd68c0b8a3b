"""The ns-3 boundary: the only package that imports cppyy or the ns-3 wheel.

``loader`` imports the wheel's module subset; ``native`` JIT-compiles ``cpp/``;
``mapping`` turns specs into ns-3 attributes; ``build`` drives the C++ Experiment;
``session`` runs one simulation in this process.
"""
