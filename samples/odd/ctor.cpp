// odd/ctor.cpp — a relocatable object (ET_REL) whose .init_array entry is written by
// .rela.init_array (the slot holds 0 until the link):
//   g++ -O1 -c ctor.cpp -o ctor.o   (scripts/build-samples)
// Shows: 1 .init_array entry, resolved through .rela.init_array to _GLOBAL__sub_I_registration
// (GCC names the function after the first global it constructs).
int odd_counter();
struct Registration {
    Registration() { value = odd_counter(); }
    int value;
};
Registration registration;
