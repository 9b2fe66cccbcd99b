print("bridge-demo")
