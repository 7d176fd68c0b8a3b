"""The kinds a scenario is made of, one module per kind, one registry per family:
queue disciplines (:mod:`~aqmlab.kinds.queues`), TCP variants (:mod:`~aqmlab.kinds.tcp`)
and traffic (:mod:`~aqmlab.kinds.traffic`). A kind owns its description: fields and
checks, how it maps onto the engines, its cost and its explorer controls. Pure Python:
nothing here imports a simulator."""
