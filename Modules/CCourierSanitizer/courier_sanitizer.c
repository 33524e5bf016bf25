// Empty: the annotations are static inline functions in the header.
