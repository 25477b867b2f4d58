// Command genvectors computes the reference value of the automatic checkpoint binding for
// every DIR/*.input.yaml (one DynamoCheckpoint each) with Go itself, built in the pinned
// operator's module: the real v1alpha1.DynamoCheckpoint and k8s.io/api types of the
// versions the operator builds with, sigs.k8s.io/json strict decoding and encoding/json.
// Run it through scripts/gen-binding-go, which builds it there.
//
// The pipeline is the one the vectors of tests/vectors were made with:
//
//	YAML --sigs.k8s.io/yaml.YAMLToJSONStrict--> JSON (input_json)
//	     --sigs.k8s.io/json.UnmarshalStrict--> v1alpha1.DynamoCheckpoint
//	     --preconditions, capture-input defaults--> projection
//	     --encoding/json.Marshal--> canonical_json --sha256--> binding
//
// An unknown field is what strict decoding reports: the case records Go's strict errors
// and no binding (the projection is still what a lenient decoder would hash, for reading).
//
// The binding function is on an unmerged branch of the operator's internal/checkpoint;
// the projection and its defaults are written here from its documented behaviour
// (docs/binding.md), not copied.
//
// Output: one JSON object per case, in file-name order: case, canonical_json, sha256,
// binding, error, strict_errors, input_json.
package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	v1alpha1 "github.com/ai-dynamo/dynamo/deploy/operator/api/v1alpha1"
)

const (
	autoMarkerKey      = "nvidia.com/dynamo-auto-checkpoint"
	artifactVersionKey = "nvidia.com/snapshot-artifact-version"
	checkpointIDLabel  = "nvidia.com/snapshot-checkpoint-id"
	componentLabel     = "nvidia.com/dynamo-component"
	workerHashLabel    = "nvidia.com/dynamo-worker-hash"
)

type captureInputs struct {
	Job              v1alpha1.DynamoCheckpointJobConfig `json:"job"`
	GPUMemoryService *v1alpha1.GPUMemoryServiceSpec     `json:"gpuMemoryService,omitempty"`
}

type projection struct {
	Name            string        `json:"name"`
	Namespace       string        `json:"namespace"`
	CheckpointID    string        `json:"checkpointID"`
	AutomaticMarker string        `json:"automaticMarker"`
	ArtifactVersion string        `json:"artifactVersion"`
	ComponentName   string        `json:"componentName"`
	WorkerHash      string        `json:"workerHash"`
	CaptureInputs   captureInputs `json:"captureInputs"`
}

type result struct {
	Case          string   `json:"case"`
	CanonicalJSON *string  `json:"canonical_json"`
	SHA256        *string  `json:"sha256"`
	Binding       *string  `json:"binding"`
	Error         *string  `json:"error"`
	StrictErrors  []string `json:"strict_errors"`
	InputJSON     string   `json:"input_json"`
}

// unbindable states why no binding exists, in the operator's words and order.
func unbindable(ckpt *v1alpha1.DynamoCheckpoint) string {
	switch {
	case ckpt.UID == "":
		return "automatic checkpoint UID is missing"
	case ckpt.Generation < 1:
		return "automatic checkpoint generation is missing"
	case ckpt.Annotations[autoMarkerKey] != "true":
		return "automatic checkpoint provenance is invalid: checkpoint " + ckpt.Name + " is not marked automatic"
	case ckpt.Labels[checkpointIDLabel] == "":
		return "automatic checkpoint provenance is invalid: automatic checkpoint " + ckpt.Name + " ID label is missing"
	}
	return ""
}

func unsetIfFalse(p **bool) {
	if *p != nil && !**p {
		*p = nil
	}
}

func defaultString(s *string, value string) {
	if *s == "" {
		*s = value
	}
}

// The capture-input defaults of docs/binding.md ("Normalisation"), applied to a copy.
func defaults(spec *v1alpha1.DynamoCheckpointSpec) captureInputs {
	in := captureInputs{Job: *spec.Job.DeepCopy()}
	if spec.GPUMemoryService != nil {
		in.GPUMemoryService = spec.GPUMemoryService.DeepCopy()
		if in.GPUMemoryService.Mode == "" {
			in.GPUMemoryService.Mode = v1alpha1.GMSModeIntraPod
		}
		defaultString(&in.GPUMemoryService.DeviceClassName, "gpu.nvidia.com")
	}
	defaultString(&in.Job.TargetContainerName, "main")
	if in.Job.ActiveDeadlineSeconds == nil {
		deadline := int64(3600)
		in.Job.ActiveDeadlineSeconds = &deadline
	}
	pod := &in.Job.PodTemplateSpec.Spec
	for i := range pod.InitContainers {
		container(&pod.InitContainers[i])
	}
	for i := range pod.Containers {
		container(&pod.Containers[i])
	}
	for i := range pod.EphemeralContainers {
		container((*corev1.Container)(&pod.EphemeralContainers[i].EphemeralContainerCommon))
	}
	for i := range pod.Volumes {
		volume(&pod.Volumes[i].VolumeSource)
	}
	return in
}

func container(c *corev1.Container) {
	for _, probe := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		if probe != nil && probe.GRPC != nil && probe.GRPC.Service != nil && *probe.GRPC.Service == "" {
			probe.GRPC.Service = nil
		}
	}
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = corev1.ProtocolTCP
		}
	}
	for i := range c.Env {
		if from := c.Env[i].ValueFrom; from != nil {
			if from.ConfigMapKeyRef != nil {
				unsetIfFalse(&from.ConfigMapKeyRef.Optional)
			}
			if from.SecretKeyRef != nil {
				unsetIfFalse(&from.SecretKeyRef.Optional)
			}
			if from.FileKeyRef != nil {
				unsetIfFalse(&from.FileKeyRef.Optional)
			}
		}
	}
	for i := range c.EnvFrom {
		if ref := c.EnvFrom[i].ConfigMapRef; ref != nil {
			unsetIfFalse(&ref.Optional)
		}
		if ref := c.EnvFrom[i].SecretRef; ref != nil {
			unsetIfFalse(&ref.Optional)
		}
	}
}

func volume(v *corev1.VolumeSource) {
	if v.ConfigMap != nil {
		unsetIfFalse(&v.ConfigMap.Optional)
	}
	if v.Secret != nil {
		unsetIfFalse(&v.Secret.Optional)
	}
	if v.Projected != nil {
		for i := range v.Projected.Sources {
			source := &v.Projected.Sources[i]
			if source.ConfigMap != nil {
				unsetIfFalse(&source.ConfigMap.Optional)
			}
			if source.Secret != nil {
				unsetIfFalse(&source.Secret.Optional)
			}
		}
	}
	if v.RBD != nil {
		defaultString(&v.RBD.RBDPool, "rbd")
		defaultString(&v.RBD.RadosUser, "admin")
		defaultString(&v.RBD.Keyring, "/etc/ceph/keyring")
	}
	if v.AzureDisk != nil {
		if v.AzureDisk.FSType == nil {
			ext4 := "ext4"
			v.AzureDisk.FSType = &ext4
		}
		unsetIfFalse(&v.AzureDisk.ReadOnly)
	}
	if v.ISCSI != nil {
		defaultString(&v.ISCSI.ISCSIInterface, "default")
	}
	if v.ScaleIO != nil {
		defaultString(&v.ScaleIO.FSType, "xfs")
		defaultString(&v.ScaleIO.StorageMode, "ThinProvisioned")
	}
}

func compute(name string, raw []byte) result {
	out := result{Case: strings.TrimSuffix(name, ".input.yaml"), StrictErrors: []string{}}
	data, err := yaml.YAMLToJSONStrict(raw)
	if err != nil {
		fail("%s: %v", name, err)
	}
	out.InputJSON = string(data)
	var ckpt v1alpha1.DynamoCheckpoint
	strict, err := kjson.UnmarshalStrict(data, &ckpt)
	if err != nil {
		text := err.Error()
		out.Error = &text
		return out
	}
	for _, e := range strict {
		out.StrictErrors = append(out.StrictErrors, e.Error())
	}
	if reason := unbindable(&ckpt); reason != "" {
		out.Error = &reason
		return out
	}
	p := projection{
		Name:            ckpt.Name,
		Namespace:       ckpt.Namespace,
		CheckpointID:    ckpt.Labels[checkpointIDLabel],
		AutomaticMarker: ckpt.Annotations[autoMarkerKey],
		ArtifactVersion: ckpt.Annotations[artifactVersionKey],
		ComponentName:   ckpt.Labels[componentLabel],
		WorkerHash:      ckpt.Labels[workerHashLabel],
		CaptureInputs:   defaults(&ckpt.Spec),
	}
	canonical, err := json.Marshal(p)
	if err != nil {
		fail("%s: %v", name, err)
	}
	text := string(canonical)
	out.CanonicalJSON = &text
	if len(strict) > 0 {
		return out // Go's strict decoder refused the object: no digest to compare
	}
	sum := fmt.Sprintf("%x", sha256.Sum256(canonical))
	binding := fmt.Sprintf("v1/%s/%d/%s", ckpt.UID, ckpt.Generation, sum)
	out.SHA256, out.Binding = &sum, &binding
	return out
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "genvectors: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	if len(os.Args) != 2 {
		fail("usage: genvectors DIR")
	}
	paths, err := filepath.Glob(filepath.Join(os.Args[1], "*.input.yaml"))
	if err != nil || len(paths) == 0 {
		fail("no *.input.yaml in %s", os.Args[1])
	}
	sort.Strings(paths)
	enc := json.NewEncoder(os.Stdout)
	for _, path := range paths {
		raw, err := os.ReadFile(path)
		if err != nil {
			fail("%v", err)
		}
		if err := enc.Encode(compute(filepath.Base(path), raw)); err != nil {
			fail("%v", err)
		}
	}
}
