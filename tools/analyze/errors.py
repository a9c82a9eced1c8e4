"""The one error a bad input raises: it names the file, where in it (a line,
"packet N", a key path) and the problem, which says the rule or limit broken.
report.main prints it as one line and exits 2."""


class InputError(Exception):
    def __init__(self, path, line, problem):
        self.path = str(path)
        self.line = line
        self.problem = problem
        where = self.path if line is None else "%s:%s" % (self.path, line)
        super().__init__("%s: %s" % (where, problem))
