struct ops x = { .a = { f, g }, [2] = h, 
{{{{ = { f