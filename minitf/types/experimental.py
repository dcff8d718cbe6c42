"""tf.types.experimental: TraceType for custom tracing rules, and the function types."""
from minitf.function import Function as PolymorphicFunction
from minitf.graph.concrete_function import ConcreteFunction, FunctionType
from minitf.tensor import TensorLike
from minitf.tensor_spec import TraceType, TracingContext

GenericFunction = PolymorphicFunction

__all__ = ["TraceType", "TracingContext", "PolymorphicFunction", "GenericFunction",
           "ConcreteFunction", "FunctionType", "TensorLike"]
