// exir-run compiles a Python file with the script frontend and runs it.
// RUN: python -c "import numpy as np; np.savez('%t.in5.npz', arg0=np.ones((2, 2), np.float32), arg1=np.array(5)); np.savez('%t.in1.npz', arg0=np.ones((2, 2), np.float32), arg1=np.array(1))"
// RUN: exir-run %S/inputs/run.py --inputs %t.in5.npz -o %t.out5.npz
// RUN: exir-run %S/inputs/run.py --inputs %t.in1.npz -o %t.out1.npz
// RUN: python -c "import numpy as np; print(np.load('%t.out5.npz')['out0'].tolist(), np.load('%t.out1.npz')['out0'].tolist())" | filecheck %s

// Five iterations return at i == 2 (x went up twice, then doubled); one just adds 1.
// CHECK: {{\[\[}}6.0, 6.0], [6.0, 6.0]] {{\[\[}}2.0, 2.0], [2.0, 2.0]]
