"""Functions whose AutoGraph code (`tf.autograph.to_code`) is compared with TF 2.21's.

Only their source matters: nothing here runs, and `tf` is never bound (both libraries read the
source and generate code from it). The first three are the examples of TF's guides
(guide/function and guide/intro_to_graphs); the others cover each converter pass.
"""
# ruff: noqa
# flake8: noqa


def simple_relu(x):
  if tf.greater(x, 0):
    return x
  else:
    return 0


def reduce_loop(x):
  while tf.reduce_sum(x) > 1:
    tf.print(x)
    x = tf.tanh(x)
  return x


def fizzbuzz(n):
  for i in tf.range(1, n + 1):
    print('Iteration:', i)
    if i % 15 == 0:
      print('FizzBuzz')
    elif i % 3 == 0:
      print('Fizz')
    elif i % 5 == 0:
      print('Buzz')
    else:
      print(i)


def conditional_expression_and_logic(x):
  y = x if x > 0 else -x
  return y and x or not x


def break_and_continue(xs):
  s = 0
  for x in xs:
    if x > 3:
      break
    if x < 0:
      continue
    s += x
  return s


def return_in_while(n):
  i = 0
  while i < n:
    i += 1
    if i > 5:
      return i
  return -i


def return_in_for(xs):
  for x in xs:
    if x > 2:
      return x
  return 0


def nested_function_and_lambda(x, *args, k=2, **kw):
  def inner(y):
    return y * k
  g = lambda z: z + 1
  return inner(g(x)), [a for a in args]


G = 1


def global_statement(x):
  global G
  if x > 0:
    G = G + 1
  return G


def try_in_loop(xs):
  s = 0
  for x in xs:
    try:
      s += 1 / x
    except ZeroDivisionError:
      s -= 1
  return s


def undefined_in_branch(x):
  if x > 0:
    y = 1
  return y


def local_in_branch(x):
  y = 0
  if x > 0:
    y = y + 1
    z = 3
  return y


def while_with_break(n):
  i = 0
  while True:
    i += 1
    if i >= n:
      break
  return i


def nested_loops(n):
  total = 0
  for i in range(n):
    j = 0
    while j < i:
      total += i * j
      j += 1
  return total


def elif_chain(x):
  if x > 10:
    r = 3
  elif x > 5:
    r = 2
  elif x > 0:
    r = 1
  else:
    r = 0
  return r


def chained_comparison(x, lo, hi):
  return lo < x < hi


def attribute_state(self, n):
  for i in tf.range(n):
    self.count += i
  return self.count


def docstring_and_call_forms(f, xs, *rest, **opts):
  """A docstring stays first."""
  a = f(*xs)
  b = f(1, *rest, key=2, **opts)
  c = f()
  return a, b, c


def set_loop_options_directive(n):
  v = 0
  for i in tf.range(n):
    tf.autograph.experimental.set_loop_options(maximum_iterations=3)
    v += i
  return v


def early_return(x):
  if x < 0:
    return -1
  y = x * 2
  return y


def delete_and_augassign(x):
  y = x
  y *= 2
  del x
  return y


def continue_in_while(n):
  i = 0
  s = 0
  while i < n:
    i += 1
    if i % 2 == 0:
      continue
    s += i
  return s


def loop_over_dict_items(d):
  keys = []
  for k, v in d.items():
    if v:
      keys.append(k)
  return keys


def nonlocal_closure(x):
  count = 0
  def bump():
    nonlocal count
    count += 1
  while count < x:
    bump()
  return count


def comprehension_with_condition(xs):
  return [x * 2 for x in xs if x > 0 and x < 10]


def not_and_or_in_if(a, b, c):
  if not a and (b or c):
    r = 1
  else:
    r = 2
  return r


def unary_and_boolean(x):
  y = not x
  z = -x
  return y, z


def subscript_state(d, n):
  for i in range(n):
    d['total'] += i
    d['items'][0] = i
  return d


def nested_def_in_loop(xs):
  out = []
  for x in xs:
    def twice(v):
      return v * 2
    out.append(twice(x))
  return out


def class_in_function(x):
  class Box:
    def __init__(self, v):
      self.v = v
    def get(self):
      if self.v > 0:
        return self.v
      return 0
  return Box(x).get()


def with_and_try_finally(path, x):
  with open(path) as f:
    if x > 0:
      data = f.read()
    else:
      data = ''
  try:
    y = len(data)
  finally:
    print('done')
  return y


def tuple_targets(pairs):
  a = b = 0
  for (p, q) in pairs:
    a, b = a + p, b + q
  return a, b


def raise_in_branch(x):
  if x < 0:
    raise ValueError('negative')
  return x


def while_with_return_and_break(n):
  i = 0
  while i < n:
    if i == 3:
      break
    if i == 7:
      return i
    i += 1
  return -1


def list_in_loop(n):
  acc = []
  i = 0
  while i < n:
    acc.append(i)
    i += 1
  return acc


def lambda_with_logic(xs):
  f = lambda a, b: a and not b
  return [f(x, x > 1) for x in xs]


def defaults_nested(x):
  def inner(y, scale=x):
    return y * scale
  return inner(2)


def if_exp_in_loop(xs):
  total = 0
  for x in xs:
    total += x if x > 0 else 0
  return total


def print_builtin_feature(x):
  print(x)
  return len(x)


def del_in_branch(x):
  y = 1
  if x > 0:
    del y
    y = 2
  return y


def loop_else_return(x):
  while x > 0:
    x -= 1
    if x == 5:
      return 'five'
  return 'done'


def raise_inside_try(x, g):
  if x is None:
    return None
  try:
    s = g()
    if s > 3:
      raise ValueError()
    v = s * 2
  except KeyError:
    raise
  return v if s else 0


def raise_inside_try_finally(path, f):
  try:
    fd = f(path)
  except OSError:
    return None
  try:
    if fd < 0:
      raise ValueError(path)
    chunks = []
    while True:
      chunk = f(fd)
      if not chunk:
        break
      chunks.append(chunk)
  finally:
    f(None)
  return chunks


def jumps_through_finally(xs):
  total = 0
  for x in xs:
    try:
      if x < 0:
        continue
      if x > 10:
        break
      total += x
    finally:
      total += 1
  return total


def nested_try_handlers(g):
  try:
    try:
      a = g(1)
      if a:
        raise KeyError()
    except KeyError:
      a = 0
      raise
    b = a + 1
  except Exception:
    b = -1
  else:
    b = b * 2
  return b


def annotated(x: int, y: float = 1.0) -> float:
  def inner(z: int = 2) -> int:
    return z if z > 0 else -z
  return x * y + inner()
