"""Ordinary GitOps manifests (Deployment, Service, ConfigMap) shared by the benchmarks.

Format with n, ns and replicas (and extra, padding lines at the end of a Deployment).
"""

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-{n}
  namespace: team-{ns}
  labels: {{app: web-{n}, tier: frontend}}
  annotations:
    deployment.kubernetes.io/revision: "3"
spec:
  replicas: {replicas}
  selector:
    matchLabels:
      app: web-{n}
  template:
    metadata:
      labels:
        app: web-{n}
    spec:
      containers:
      - name: main
        image: registry.example.com/web:1.{n}.0
        ports:
        - containerPort: 8080
          protocol: TCP
        resources:
          limits: {{cpu: 500m, memory: 512Mi}}
          requests: {{cpu: 0.25, memory: 256Mi}}
        env:
        - name: LOG_LEVEL
          value: info
        - name: ENABLED
          value: "true"
{extra}"""

SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: svc-{n}
  namespace: team-{ns}
spec:
  selector: {{app: web-{n}}}
  ports:
  - port: 80
    targetPort: 8080
    protocol: TCP
"""

CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings-{n}
  namespace: team-{ns}
data:
  LOG_LEVEL: info
  FEATURE_FLAGS: "a,b,c"
  config.yaml: |
    server:
      port: 8080
      workers: {replicas}
"""
