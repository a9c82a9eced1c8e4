"""The one error a bad input raises: it names the file, the line and the problem."""


class InputError(Exception):
    def __init__(self, path, line, problem):
        self.path = str(path)
        self.line = line
        self.problem = problem
        where = self.path if line is None else "%s:%s" % (self.path, line)
        super().__init__("%s: %s" % (where, problem))
