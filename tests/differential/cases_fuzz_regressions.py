"""Minimized programs that random testing found crashing the compiler,
hanging it or giving a wrong answer. Each stays here so its class of bug
cannot come back: copies that aliased their source, branch names bound to
existing values, scalar copy_ sources, eager's setitem rule, odd chunks,
unused values on the imperative (fallback) path, copies of an input folded
into the input that is then written back, subscript assignments whose value
overlaps the destination, loop-carried names that start as a tensor the
loop writes under another name, a name bound in a loop body to the tensor
it held before, loop-carried names that end up sharing one tensor, a loop
output that may still be its input when it is written, a view carried
through a loop and a branch that is the same view on every path, an outer
tensor handed to a loop-carried name through an inner loop or branch, a
new tensor an inner loop hands to another carried name, a tile filled in
pieces inside another tile's fill."""

from case_builders import case

F3 = ("f32", [3])
F4 = ("f32", [4])
F34 = ("f32", [3, 4])


CASES = [
    # copy_ made y an alias of x: zeroing y zeroed x.
    case("copy_then_zero_keeps_source", """
def f(x: torch.Tensor) -> torch.Tensor:
    y = torch.zeros_like(x)
    y.copy_(x)
    y.zero_()
    return x * 1.0
""", {"x": F3}),
    case("copy_into_input_then_scale_then_copy_again", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    x.copy_(y)
    x.mul_(1.5)
    x.copy_(y * 0.5)
    return x
""", {"x": F4, "y": F4}),
    # Functionalization never returned (a cycle of versions).
    case("copy_scale_copy_same_source", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    x.copy_(y)
    x.mul_(1.5)
    x.copy_(y)
    return x
""", {"x": F4, "y": F4}),
    case("source_written_after_copy", """
def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    x = x.clone()
    y = torch.empty_like(x)
    y.copy_(x)
    x.add_(1.0)
    y.mul_(2.0)
    return x, y
""", {"x": F34}),
    case("copy_from_view_then_write_view_base", """
def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    x = x.clone()
    y = torch.zeros(4)
    y.copy_(x[1])
    x[1] = 0.0
    y[0] = 5.0
    return x, y
""", {"x": F34}),
    # An odd chunk's last piece kept its static size; with an unused value
    # the imperative graph's kernels did not match their groups.
    case("odd_chunk_flatten_with_unused_value", """
def f(x: torch.Tensor) -> torch.Tensor:
    n = x * 2.0
    b = x.chunk(2, 0)[1]
    return b.flatten()
""", {"x": F3}),
    case("odd_split_pieces_unpacked", """
def f(x: torch.Tensor) -> torch.Tensor:
    a, b, c = x.split(2, 1)
    return a.flatten().sum() + b.reshape(-1).sum() + c.flatten()
""", {"x": ("f32", [3, 5])}),
    # A branch whose arm returns an existing tensor, with an empty list
    # after it: the code after the if was copied into the arms wrongly.
    case("branch_alias_written_then_empty_list", """
def f(x: torch.Tensor, s: float) -> torch.Tensor:
    if s > 0.0:
        t = x
    else:
        t = x * 3.0
    t.mul_(3.0)
    outs: List[torch.Tensor] = []
    return x + 1.0
""", {"x": F3, "s": 1.0}),
    case("branch_alias_written_then_empty_list_other_arm", """
def f(x: torch.Tensor, s: float) -> torch.Tensor:
    if s > 0.0:
        t = x
    else:
        t = x * 3.0
    t.mul_(3.0)
    outs: List[torch.Tensor] = []
    return x + 1.0
""", {"x": F3, "s": -1.0}),
    # Every arm binds the name to the same existing tensor.
    case("both_arms_bind_same_tensor", """
def f(x: torch.Tensor, k: int) -> torch.Tensor:
    if k > 2:
        t = x
    else:
        t = x
    return t * 2.0
""", {"x": F3, "k": 3}),
    case("elif_arms_bind_same_tensor_then_write", """
def f(x: torch.Tensor, k: int) -> torch.Tensor:
    x = x.clone()
    if k > 2:
        t = x
    elif k > 1:
        t = x
    else:
        t = x
    t.add_(1.0)
    return x
""", {"x": F3, "k": 1}),
    case("arms_rebind_existing_name_to_same_tensor", """
def f(x: torch.Tensor, y: torch.Tensor, k: int) -> torch.Tensor:
    t = y
    if k > 2:
        t = x
    else:
        t = x
    return t + y
""", {"x": F3, "y": F3, "k": 0}),
    # copy_ from a Python number fills, cast to the target's dtype.
    case("copy_from_python_scalars", """
def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    y = torch.zeros_like(x)
    y.copy_(0.5)
    z = torch.zeros(3, dtype=torch.int64)
    z.copy_(3)
    w = torch.zeros(2)
    w.copy_(2)
    return y + x, z, w
""", {"x": F3}),
    # x[i] = v drops v's leading size-1 dims, as PyTorch eager does.
    case("setitem_value_with_leading_ones", """
def f(x: torch.Tensor, r: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    y = x.clone()
    y[0] = r
    y[1:3] = q
    y[2, 1:] = r[:, :3]
    return y
""", {"x": F34, "r": ("f32", [1, 4]), "q": ("f32", [1, 1, 4])}),
    case("setitem_value_into_scalar_slot", """
def f(x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    y = x.clone()
    y[0, 0] = s
    return y
""", {"x": F34, "s": ("f32", [1, 1])}),
    # A view read only by a copy is the copy's value unless its base is
    # written: then it must follow the writes (loops included).
    case("copy_from_view_whose_base_is_written_in_loop", """
def f(x: torch.Tensor) -> torch.Tensor:
    x = x.clone()
    y = torch.zeros(4)
    v = x[1]
    for i in range(3):
        y.copy_(v)
        x.add_(1.0)
    return y
""", {"x": F34}),
    case("copy_from_view_between_base_writes", """
def f(x: torch.Tensor) -> torch.Tensor:
    x = x.clone()
    y = torch.zeros(4)
    v = x[1]
    x.add_(1.0)
    y.copy_(v)
    x.add_(1.0)
    return y + x[1]
""", {"x": F34}),
    # Simplification folded a copy of an input into the input itself; the
    # input's written-back value then showed in the copy.
    case("full_copy_of_input_then_input_written", """
def f(z: torch.Tensor) -> torch.Tensor:
    t = torch.tanh(z)
    t.copy_(z)
    z[:, 1] = 3.0
    return t
""", {"z": ("f32", [2, 3])}),
    case("loop_copies_input_then_input_written", """
def f(z: torch.Tensor, k: int) -> torch.Tensor:
    t = torch.tanh(z)
    for i in range(k):
        t.copy_(z)
    z[:, 1] = 3.0
    return t
""", {"z": ("f32", [2, 3]), "k": 2}),
    case("row_stored_from_input_then_input_written", """
def f(z: torch.Tensor) -> torch.Tensor:
    y = torch.zeros(2, 3)
    y[0] = z
    z.add_(1.0)
    return y[0]
""", {"z": F3}),
    # x[i] = v copies v expanded to the destination, as eager's setitem:
    # PyTorch accepts a broadcast value that overlaps the destination and a
    # value that is the destination itself.
    case("setitem_broadcasts_own_first_element", """
def f(x: torch.Tensor) -> torch.Tensor:
    x = x.clone()
    v = x[:1]
    x[:] = v
    return x
""", {"x": ("f32", [2])}),
    case("setitem_broadcasts_own_row_over_it", """
def f(x: torch.Tensor) -> torch.Tensor:
    x = x.clone()
    x[:2] = x[1]
    return x
""", {"x": F34}),
    case("setitem_size_one_view_onto_itself", """
def f(x: torch.Tensor) -> torch.Tensor:
    x = torch.softmax(x, 0)
    v = x[4:]
    v[:] = v
    return x
""", {"x": ("f32", [5])}),
    case("setitem_permuted_view_onto_itself", """
def f(y: torch.Tensor) -> torch.Tensor:
    v = y.unsqueeze(1).permute(2, 1, 0)
    v[:, :] = v
    return v + y.sum()
""", {"y": ("f32", [2, 5])}),
    # t starts as x: the first iteration's write to x reaches t. With a
    # constant trip count the first iteration is peeled; otherwise the loop
    # may not run and t stays x, so functionalization refuses it.
    case("carried_name_starts_as_tensor_written_in_loop", """
def f(x: torch.Tensor) -> torch.Tensor:
    t = x
    for i in range(2):
        v = x.split(2, 1)[0]
        v.add_(2.0)
        t = torch.softmax(t, 1)
    return t
""", {"x": ("f32", [5, 4, 3])}),
    case("carried_name_starts_as_tensor_written_in_loop_of_k", """
def f(x: torch.Tensor, k: int) -> torch.Tensor:
    x = x.clone()
    t = x
    for i in range(k):
        x[:, 0] += 2.0
        t = torch.softmax(t, 1)
    return t
""", {"x": F34, "k": 2}, fallback=True),
    case("carried_name_starts_as_tensor_written_after_empty_loop", """
def f(x: torch.Tensor, k: int) -> torch.Tensor:
    x = x.clone()
    t = x
    for i in range(k):
        t = torch.softmax(t, 1)
    x.add_(1.0)
    return t
""", {"x": F34, "k": 0}, fallback=True),
    # The body binds t to x, which t held before: the emitted loop returned
    # a parameter it had removed.
    case("loop_rebinds_name_to_its_tensor", """
def f(x: torch.Tensor, k: int) -> torch.Tensor:
    t = x
    for i in range(k):
        t = torch.softmax(t, 0) + x
        t = x
    return t * 2.0
""", {"x": F34, "k": 2}),
    # After the loop x and y are one tensor: the write to y is x's too.
    case("loop_slots_end_as_one_tensor", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    for i in range(1):
        y = y > 0.5
        x = y
    y[1:3] = True
    return x
""", {"x": ("f32", [5]), "y": ("f32", [5])}, fallback=True),
    # The loop breaks before x changes: x is still the input, which the
    # unbound rows view, when it is written.
    case("loop_output_still_input_when_written", """
def f(x: torch.Tensor) -> List[torch.Tensor]:
    ys = x.unbind(0)
    for i in range(1):
        if i == 0:
            break
        x = x * 2.0
    x -= 0.5
    return ys
""", {"x": ("f32", [2, 2])}, fallback=True),
    # Every path gives t the same view y[0]: the loop and the branch carry
    # no scalars at all, which crashed view-carries.
    case("same_view_through_loop_and_branch", """
def f(y: torch.Tensor, k: int) -> torch.Tensor:
    y = y.clone()
    v = y[0]
    t = v
    for i in range(k):
        if i % 2 == 1:
            t = v
            y -= 0.5
    t.mul_(2.0)
    return y
""", {"y": ("f32", [5, 4]), "k": 3}),
    # From the second iteration on t is x (the inner loop hands it on), so
    # `t += 0.5` writes x: functionalization refuses it.
    case("outer_tensor_handed_on_by_inner_loop_then_written", """
def f(x: torch.Tensor) -> torch.Tensor:
    x = x.clone()
    t = x + 2.0
    for i in range(4):
        t += 0.5
        for j in range(1):
            t = x
    return t
""", {"x": F4}, fallback=True),
    case("outer_tensor_handed_on_by_branch_then_written", """
def f(x: torch.Tensor, k: int) -> torch.Tensor:
    x = x.clone()
    t = x + 2.0
    for i in range(4):
        t += 0.5
        if i < k:
            t = x
    return t
""", {"x": F4, "k": 2}, fallback=True),
    # A tile whose fill loop is split into pieces (loop_pieces.h) re-emits
    # its body per piece; values of the reductions inside it belonged to the
    # previous piece's (closed) loops.
    case("pieced_fill_with_reductions_inside", """
def f(y: torch.Tensor) -> List[torch.Tensor]:
    t6 = torch.stack(y.unbind(0), 0).logsumexp(1, keepdim=True)
    return t6.unbind(0)
""", {"y": ("f32", [2, 2])}),
    # Simplification folded a copy of a loop's output into the output, which
    # is the input itself when the loop breaks at once; the input's
    # written-back value then showed in the copy.
    case("copy_of_loop_output_that_is_the_input", """
def f(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    for i in range(1):
        if i == 0:
            break
        x[:1, 2:3] = 2.0
    y.copy_(x)
    x[:1, 4::2] *= 1.5
    return y
""", {"x": ("f32", [2, 5]), "y": ("f32", [2, 5])}),
    # A tile filled by columns (the reduction's loops outside, the tile's
    # innermost) whose terms read a value of the tile's variable alone
    # (z[i] in prod_j(z[i] - y[j])): it was emitted after the terms.
    case("column_fill_with_a_term_of_the_tile_variable", """
def f(y: torch.Tensor, z: torch.Tensor) -> float:
    t2 = (z - y).prod(1, keepdim=True)
    z = t2 - t2.amax(0, keepdim=True)
    return float(z.sum())
""", {"y": ("f32", [1, 65], 0.99, 1.01), "z": ("f32", [65, 1], 2.0, 2.02)}),
    # A softmax tile filled per element of the tile around it, its exps
    # filled in pieces (the stack's rows compare their index with
    # constants): each piece forgot the enclosing fill's open variables.
    case("pieced_fill_inside_a_fill_keeps_the_outer_variables", """
def f(y: torch.Tensor) -> int:
    t = torch.softmax(torch.stack([y, y], 0), 0)
    return int(t.argmax())
""", {"y": ("f32", [2, 4])}),
    # An inner loop hands the outer body's new tensor on as another
    # carried name: after the loop both names hold one buffer, and the write
    # through one must show through the other (refused, as other slots
    # sharing a buffer are: the imperative graph runs it).
    case("inner_loop_hands_a_new_tensor_to_another_carried_name", """
def f(x: torch.Tensor) -> torch.Tensor:
    t1 = x
    for i in range(1):
        x = torch.sin(x)
        for j in range(1):
            t1 = x
    x[1] = 0.5
    return t1
""", {"x": ("f32", [4, 5])}, fallback=True),
]
